import { Rng } from "../../rng.js";
export declare const defaultRng: Rng;
