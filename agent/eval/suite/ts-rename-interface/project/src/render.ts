import type { UserProps, UserList } from "./types";

export function render(user: UserProps): string {
  return `#${user.id} ${user.name}`;
}

export function renderAll(users: UserList): string[] {
  return users.map(render);
}
