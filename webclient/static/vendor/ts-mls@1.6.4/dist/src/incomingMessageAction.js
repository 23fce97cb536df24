/** @public */
export const acceptAll = () => "accept";
