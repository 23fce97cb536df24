import { HashAlgorithm, Hash } from "../../hash.js";
export declare function makeHashImpl(h: HashAlgorithm): Hash;
