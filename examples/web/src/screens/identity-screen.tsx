import { useLazyQuery, useQuery } from '@apollo/client/react';
import { useState, type FormEvent } from 'react';
import { AccountsDocument, VerifyNameDocument, type VerifyNameQuery } from '../__generated__/graphql';
import { ErrorMessage } from '../components/query-state';

type Source = VerifyNameQuery['verifyName']['sources'][number];
const EMPTY = { givenName: '', middleName: '', familyName: '', accountId: '' };
const MATCH_WORDS = { MATCH: 'full match', PARTIAL_MATCH: 'partial match' } as const;

/**
 * Name verification as the platform defines it. It compares a name with what the signed-in user's
 * own banks hold about them: the account holders' names and the name behind each bank login. So it
 * can confirm who the user is (an identity check) or that they hold one account (an ownership
 * check, with `accountId`). It cannot check anyone else, such as a payee.
 */
export function IdentityScreen() {
  const accounts = useQuery(AccountsDocument);
  const [form, setForm] = useState(EMPTY);
  const [verify, { data, loading, error, variables }] = useLazyQuery(VerifyNameDocument, { fetchPolicy: 'no-cache' });
  const field = (name: keyof typeof EMPTY) => ({
    id: `name-${name}`,
    value: form[name],
    onChange: (event: { target: { value: string } }) => setForm({ ...form, [name]: event.target.value }),
  });
  const check = (event: FormEvent) => {
    event.preventDefault();
    const optional = (value: string) => value.trim() || null;
    const input = {
      familyName: form.familyName.trim(),
      givenName: optional(form.givenName),
      middleName: optional(form.middleName),
    };
    // A failure shows from `error`; the promise rejects with it too.
    verify({ variables: { input, accountId: form.accountId || null } }).catch(() => undefined);
  };
  const all = accounts.data?.accounts ?? [];
  const checkedAccount = all.find((account) => account.id === variables?.accountId);

  return (
    <section aria-labelledby="identity-title">
      <h2 id="identity-title">Is this your legal name?</h2>
      <p className="muted">
        Your banks compare it with the names they hold about you: the holders of your accounts, and the name behind each
        bank login. It checks you only: it cannot check anyone else’s name, such as a payee’s.
      </p>
      <form onSubmit={check} className="form">
        <label htmlFor="name-givenName">First name</label>
        <input {...field('givenName')} autoComplete="given-name" />
        <label htmlFor="name-middleName">Middle names (optional)</label>
        <input {...field('middleName')} autoComplete="additional-name" />
        <label htmlFor="name-familyName">Last name</label>
        <input {...field('familyName')} autoComplete="family-name" required />
        <label htmlFor="name-accountId">Check against</label>
        <select {...field('accountId')}>
          <option value="">All your banks (is this you?)</option>
          {all.map((account) => (
            <option key={account.id} value={account.id}>
              One account: {account.name} ({account.formattedAccount ?? account.bank.name}) (do you hold it?)
            </option>
          ))}
        </select>
        <button type="submit" className="primary" disabled={loading}>
          {loading ? 'Checking…' : 'Check my name'}
        </button>
      </form>
      <ErrorMessage error={error} />
      {data && !loading && (
        <NameResult sources={data.verifyName.sources} account={checkedAccount?.name} banks={bankNames(all)} />
      )}
    </section>
  );
}

function bankNames(accounts: Array<{ bank: { id: string; name: string } }>): Map<string, string> {
  return new Map(accounts.map((account) => [account.bank.id, account.bank.name]));
}

interface NameResultProps {
  sources: Source[];
  /** The account of an ownership check; undefined for an identity check. */
  account?: string;
  banks: Map<string, string>;
}

/** What matched. An ownership check counts only the account's holder names, as the platform advises. */
function NameResult({ sources, account, banks }: NameResultProps) {
  const counted = account ? sources.filter((source) => source.type === 'HOLDER_NAME') : sources;
  const best = counted.some((source) => source.matchResult === 'MATCH')
    ? 'MATCH'
    : counted.length > 0
      ? 'PARTIAL_MATCH'
      : 'NONE';
  const summary = {
    MATCH: account ? `You are a named holder of ${account}.` : 'Your banks know you by this name.',
    PARTIAL_MATCH: account
      ? `Your last name matches a holder of ${account}; your other names only in part (initials, for example).`
      : 'Your last name matches what your banks hold; your other names only in part (initials, for example).',
    NONE: account ? `This name is not among the holders of ${account}.` : 'None of your banks holds this name for you.',
  }[best];
  return (
    <div className="card" role="status" data-outcome={best}>
      <p>
        <strong>{summary}</strong>
      </p>
      {counted.length > 0 && (
        <ul aria-label="Sources that matched">
          {counted.map((source, index) => (
            <li key={index}>{describe(source, banks)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function describe(source: Source, banks: Map<string, string>): string {
  const match = MATCH_WORDS[source.matchResult];
  if (source.__typename === 'HolderNameSource')
    return `Holder name of ${source.accountName ?? 'an account'} (${source.formattedAccount ?? source.accountId}): ${source.holder}, ${match}`;
  const at = source.bankIds.map((id) => banks.get(id) ?? id).join(', ');
  return `Name behind your login at ${at || 'your bank'}: ${source.value}, ${match}`;
}
