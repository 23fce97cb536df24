import { Capabilities } from "./capabilities.js";
/** @public */
export declare function defaultCapabilities(): Capabilities;
