/** @public */
export const defaultLifetimeConfig = {
    maximumTotalLifetime: 2628000n, // 1 month
    validateLifetimeOnReceive: false,
};
