export * from "../default/makeKdfImpl.js";
