export declare function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean;
