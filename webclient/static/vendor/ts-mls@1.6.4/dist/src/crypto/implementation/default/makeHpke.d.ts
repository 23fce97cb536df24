import { Hpke, HpkeAlgorithm } from "../../hpke.js";
export declare function makeHpke(hpkealg: HpkeAlgorithm): Promise<Hpke>;
