import { useQuery, useSubscription } from '@apollo/client/react';
import { useState } from 'react';
import { AccessRevokedDocument, MeDocument } from '../__generated__/graphql';
import { AccountsScreen } from './accounts-screen';
import { ControlsScreen } from './controls-screen';
import { IdentityScreen } from './identity-screen';
import { PaymentScreen } from './payment-screen';
import { TransactionsScreen } from './transactions-screen';
import { TransferScreen } from './transfer-screen';

const SCREENS = {
  accounts: { title: 'Accounts', Screen: AccountsScreen },
  transactions: { title: 'Transactions', Screen: TransactionsScreen },
  pay: { title: 'Pay', Screen: PaymentScreen },
  transfer: { title: 'Transfer', Screen: TransferScreen },
  identity: { title: 'Your name', Screen: IdentityScreen },
} as const;
type ScreenName = keyof typeof SCREENS | 'controls';

interface SignedInShellProps {
  gatewayUrl: string;
  onSignedOut: (reason: string) => void;
}

/** The signed-in app: a header with the user and sign-out, a tab bar, and one screen at a time. */
export function SignedInShell({ gatewayUrl, onSignedOut }: SignedInShellProps) {
  const [screen, setScreen] = useState<ScreenName>('accounts');
  const me = useQuery(MeDocument);
  // The platform revoked access elsewhere (the user's bank, another device): sign out here too.
  useSubscription(AccessRevokedDocument, {
    onData: () => onSignedOut('Your bank access was revoked. You are signed out.'),
  });
  const signOut = async () => {
    // The gateway ends the session and clears its cookie; the bank connection stays.
    await fetch(`${gatewayUrl}/auth/logout`, { method: 'POST', credentials: 'include' }).catch(() => undefined);
    onSignedOut('You are signed out.');
  };
  const current = screen === 'controls' ? null : SCREENS[screen];

  return (
    <>
      <header className="bar">
        <span>
          <strong>Kete</strong> {me.data ? `· Kia ora, ${me.data.me.preferredName ?? 'there'}` : ''}
        </span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav aria-label="Screens" className="tabs">
        {[...Object.entries(SCREENS), ['controls', { title: 'Privacy' }] as const].map(([name, { title }]) => (
          <button
            key={name}
            type="button"
            aria-current={screen === name ? 'page' : undefined}
            onClick={() => setScreen(name as ScreenName)}
          >
            {title}
          </button>
        ))}
      </nav>
      <main>{current ? <current.Screen /> : <ControlsScreen onSignedOut={onSignedOut} />}</main>
    </>
  );
}
