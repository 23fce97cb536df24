import { HashAlgorithm, Hash } from "../../hash.js";
export declare function makeHashImpl(sc: SubtleCrypto, h: HashAlgorithm): Hash;
