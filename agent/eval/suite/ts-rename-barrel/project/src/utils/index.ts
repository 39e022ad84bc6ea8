export { formatDate } from "./date";
export * from "./strings";
