export const b: number = 41;
