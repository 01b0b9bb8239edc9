import type { Clock } from '../../core/clock.js';
import type { KeySigners } from '../../core/key-signature.js';
import type { RepositoryName, UnitOfWork } from '../../store/store.js';

/**
 * What a use case needs: the repositories it touches (`Deps<'keys' | 'audit'>`) with their transaction
 * unit, and the clock. The HTTP app, the CLI and tests each assemble one, holding the whole store.
 */
export interface Deps<Name extends RepositoryName = RepositoryName> {
  store: UnitOfWork<Name>;
  clock: Clock;
  /**
   * What new keys are signed with (src/services/keys/signing-secret.ts: never a secret of the database); none,
   * and new keys are unsigned, looked up whenever the key cache misses them.
   */
  keySigners?: KeySigners;
}
