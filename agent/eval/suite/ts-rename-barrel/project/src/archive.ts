import * as utils from "./utils";
import { formatDate } from "./utils/date";

export function folder(d: Date): string {
  return utils.formatDate(d).slice(0, 7) + "/" + formatDate(d);
}
