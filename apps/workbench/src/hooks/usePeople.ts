import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type PersonChange, peopleApi, type Role } from '../api/people';

/** Everyone who can sign in, for admins (the People screen). */
export function usePeople() {
  return useQuery({ queryKey: ['people'], queryFn: () => peopleApi.list() });
}

/** A role, channels or disabled change; the list is read again afterwards. */
export function useChangePerson() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: string; change: PersonChange }) => peopleApi.change(id, change),
    onSettled: () => client.invalidateQueries({ queryKey: ['people'] }),
  });
}

/** Creates the account; the answer carries a one-time sign-in link when passwords are on. */
export function useInvitePerson() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; role: Role; channels: readonly string[] }) => peopleApi.invite(input),
    onSuccess: () => client.invalidateQueries({ queryKey: ['people'] }),
  });
}

export function useNewInvite() {
  return useMutation({ mutationFn: (id: string) => peopleApi.newInvite(id) });
}

/** What the sign-in page offers: passwords, single sign-on, or both. Assumes passwords when the API does not say. */
export function useSignInOptions() {
  return useQuery({
    queryKey: ['sign-in-options'],
    queryFn: () => peopleApi.signInOptions().catch(() => ({ password_login: true, sso: null })),
    staleTime: 300_000,
  });
}
