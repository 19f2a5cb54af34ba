import { useLazyQuery } from '@apollo/client/react';
import { VerifyPayeeNameDocument } from '../__generated__/graphql';
import { ErrorMessage } from './query-state';

interface PayeeNameCheckProps {
  givenName: string;
  familyName: string;
  /** The name last checked, so an edit afterwards asks for a new check. */
  onChecked: (name: string) => void;
}

const OUTCOME = {
  MATCH: 'The name matches the account holder.',
  PARTIAL_MATCH: 'The name partly matches (initials or some names only). Check it with the payee.',
  NONE: 'No account holder has this name. Check it with the payee before you pay.',
} as const;

/** Checks the payee's name with the banks (`verifyName`) before a payment can be sent. */
export function PayeeNameCheck({ givenName, familyName, onChecked }: PayeeNameCheckProps) {
  const [verify, { data, loading, error, variables }] = useLazyQuery(VerifyPayeeNameDocument, {
    fetchPolicy: 'network-only',
  });
  const name = `${givenName} ${familyName}`.trim();
  const checked = variables?.input;
  const checkedName = checked ? `${checked.givenName ?? ''} ${checked.familyName}`.trim() : '';
  const results = data?.verifyName.sources.map((source) => source.matchResult) ?? [];
  const outcome = results.includes('MATCH') ? 'MATCH' : results.includes('PARTIAL_MATCH') ? 'PARTIAL_MATCH' : 'NONE';
  const check = async () => {
    // A failure is shown from `error` below; the promise rejects with it too.
    const result = await verify({ variables: { input: { givenName: givenName || null, familyName } } }).catch(
      () => undefined,
    );
    if (result?.data) onChecked(name);
  };
  return (
    <div className="name-check">
      <button type="button" onClick={() => void check()} disabled={loading || familyName.trim() === ''}>
        {loading ? 'Checking name…' : 'Check name'}
      </button>
      {error && <ErrorMessage error={error} />}
      {data && checkedName === name && (
        <p role="status" className={outcome === 'MATCH' ? 'ok' : 'alert'} data-outcome={outcome}>
          {OUTCOME[outcome]}
        </p>
      )}
    </div>
  );
}
