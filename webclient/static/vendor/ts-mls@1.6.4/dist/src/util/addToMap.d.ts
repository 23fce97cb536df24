export declare function addToMap<K, V>(map: Map<K, V>, k: K, v: V): Map<K, V>;
