import { NotSupportedError } from "../../../../common@1.10.1/esm/mod.js";
export function emitNotSupported() {
    return new Promise((_resolve, reject) => {
        reject(new NotSupportedError("Not supported"));
    });
}
