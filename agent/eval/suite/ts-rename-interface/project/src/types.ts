export interface UserProps {
  id: number;
  name: string;
}

export type UserList = UserProps[];
