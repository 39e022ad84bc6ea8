import * as math from "./math";

export const level = (v: number): number => math.clamp(v, 0, 11);
