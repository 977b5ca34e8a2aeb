import { LoomError } from '@loom/contracts';
import { requireEveryNamespace, resolveUserId, type Principal } from './principal';

const principal = (over: Partial<Principal>): Principal => ({ tokenId: 't', namespaces: ['acme'], role: 'viewer', readScope: 'all', readUserId: undefined, ...over });
const statusOf = (fn: () => unknown): number | 'ok' => {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (LoomError.isLoomError(error)) return error.status;
    throw error;
  }
};

describe('principal checks [issue 9: roles]', () => {
  it('SAVE-TOKEN-02 [issue 9: unpinned own_user token]: an own_user token stored without its user (minted before read_user_id was required) acts for nobody', () => {
    const unpinned = principal({ readScope: 'own_user' });
    expect(statusOf(() => resolveUserId(unpinned, 'bob', 'conversation.list_saved_messages'))).toBe(403);
    expect(statusOf(() => resolveUserId(unpinned, undefined, 'conversation.list_saved_messages'))).toBe(403);
    expect(resolveUserId(principal({ readScope: 'own_user', readUserId: 'alice' }), undefined, 'op')).toBe('alice');
    expect(statusOf(() => resolveUserId(principal({ readScope: 'own_user', readUserId: 'alice' }), 'bob', 'op'))).toBe(403);
  });

  it('deployment-wide ops need a token for every namespace, whatever its role or the namespaces it lists', () => {
    expect(statusOf(() => requireEveryNamespace(principal({ role: 'admin' }), 'settings.set'))).toBe(403);
    expect(statusOf(() => requireEveryNamespace(principal({ role: 'admin', namespaces: ['a', 'b', 'c'] }), 'settings.set'))).toBe(403);
    expect(statusOf(() => requireEveryNamespace(principal({ role: 'admin', namespaces: ['*'] }), 'settings.set'))).toBe('ok');
  });
});
