export * from "../default/rng.js";
