import type { QueueItem } from '../api/types';
import { Badge } from '../ui';
import { relativeAge } from './QueueMeta';

/** "1 of 2 approvals": how many different reviewers have promoted a frame that needs more than one. */
export function approvalsText(approvals: NonNullable<QueueItem['approvals']>): string {
  return `${approvals.approved} of ${approvals.required} approvals`;
}

/** "due in 2 h" / "overdue by 15 min". */
export function dueText(dueAt: string, now = Date.now()): string {
  const at = Date.parse(dueAt);
  return at >= now ? `due in ${relativeAge(new Date(now).toISOString(), at)}` : `overdue by ${relativeAge(dueAt, now)}`;
}

/**
 * What the channel's review policy put on a frame, as badges for the queue row and the detail:
 * approvals ("1 of 2 approvals"), priority when not normal, the due time, the rule that sent it here.
 */
export function PolicyChips({
  item,
}: {
  readonly item: Pick<QueueItem, 'approvals' | 'priority' | 'due_at' | 'policy'>;
}) {
  const rule = item.policy?.rule;
  const overdue = item.due_at ? Date.parse(item.due_at) < Date.now() : false;
  return (
    <>
      {item.approvals && (
        <Badge tone="accent" className="approvals" title="Different reviewers who promoted it, of those it needs">
          {approvalsText(item.approvals)}
        </Badge>
      )}
      {item.priority && item.priority !== 'normal' && (
        <Badge tone={item.priority === 'high' ? 'warning' : 'neutral'}>{item.priority} priority</Badge>
      )}
      {item.due_at && (
        <Badge tone={overdue ? 'danger' : 'neutral'} title={new Date(item.due_at).toLocaleString()}>
          {dueText(item.due_at)}
        </Badge>
      )}
      {rule && (
        <Badge className="rule" title="The review policy rule that sent it here">
          rule {rule}
        </Badge>
      )}
    </>
  );
}
