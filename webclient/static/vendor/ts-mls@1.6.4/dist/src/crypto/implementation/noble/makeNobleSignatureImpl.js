export * from "../default/makeNobleSignatureImpl.js";
