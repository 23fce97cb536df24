/** @public */
export const defaultKeyRetentionConfig = {
    retainKeysForGenerations: 10,
    retainKeysForEpochs: 4,
    maximumForwardRatchetSteps: 200,
};
