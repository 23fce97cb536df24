import { SignatureAlgorithm, Signature } from "../../signature.js";
export declare function makeNobleSignatureImpl(alg: SignatureAlgorithm): Promise<Signature>;
