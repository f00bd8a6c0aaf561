/** A step's 1-based position in the plan's question bank. */
export const step = (param: string): number | undefined => (/^[1-9][0-9]{0,2}$/.test(param) ? Number(param) : undefined);
