export declare function arraysEqual<T>(a: T[], b: T[]): boolean;
