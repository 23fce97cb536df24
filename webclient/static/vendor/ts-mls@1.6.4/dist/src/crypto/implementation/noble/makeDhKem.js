export * from "../default/makeDhKem.js";
