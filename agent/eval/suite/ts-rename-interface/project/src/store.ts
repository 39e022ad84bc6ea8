import { UserProps } from "./types";

const users = new Map<number, UserProps>();

export function save(user: UserProps): void {
  users.set(user.id, user);
}
