import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { teamApi, type TeamWindow } from '../api/team';

/** Per reviewer numbers over a window, for admins (the Team screen); the last window stays shown while the next loads. */
export function useTeamStats(window: TeamWindow) {
  return useQuery({
    queryKey: ['team', window.since, window.until],
    queryFn: () => teamApi.stats(window),
    placeholderData: keepPreviousData,
  });
}
