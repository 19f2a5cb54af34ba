import { useMutation } from '@apollo/client/react';
import { DeleteMyAccountDocument, RevokeAllAccessDocument } from '../__generated__/graphql';
import { ConfirmAction } from '../components/confirm-action';
import { ConnectedAccounts } from '../components/connected-accounts';
import { ErrorMessage } from '../components/query-state';

/**
 * The consumer's controls, as the platform's accreditation rules list them: every connected account
 * whatever its status, stop sharing one, revoke all access, delete my account.
 */
export function ControlsScreen({ onSignedOut }: { onSignedOut: (reason: string) => void }) {
  const [revoke, revoking] = useMutation(RevokeAllAccessDocument);
  const [remove, removing] = useMutation(DeleteMyAccountDocument);

  const revokeAccess = async () => {
    const { data } = await revoke().catch(() => ({ data: undefined }));
    if (data?.revokeAllAccess.signedOut) onSignedOut('Access revoked. You are signed out.');
  };
  const deleteAccount = async () => {
    const { data } = await remove().catch(() => ({ data: undefined }));
    if (data?.deleteMyAccount.accessEnded) onSignedOut('Your account with the app is deleted. You are signed out.');
  };
  const failures = removing.data?.deleteMyAccount.failures ?? [];

  return (
    <section aria-labelledby="controls-title">
      <h2 id="controls-title">Privacy and access</h2>
      <div className="card">
        <h3>Accounts you share with this app</h3>
        <ConnectedAccounts />
      </div>
      <div className="card">
        <h3>Stop sharing your bank data</h3>
        <p>Ends this app’s access to every connected account and signs you out everywhere.</p>
        <ConfirmAction
          label="Revoke all access"
          warning="The app will no longer see your accounts or make payments. You can connect again later."
          confirmLabel="Yes, revoke all access"
          busy={revoking.loading}
          onConfirm={() => void revokeAccess()}
        />
        <ErrorMessage error={revoking.error} />
      </div>
      <div className="card">
        <h3>Delete my account</h3>
        <p>Revokes access and deletes everything the app holds about you.</p>
        <ConfirmAction
          label="Delete my account"
          warning="This cannot be undone."
          confirmLabel="Yes, delete my account"
          busy={removing.loading}
          onConfirm={() => void deleteAccount()}
        />
        <ErrorMessage error={removing.error} />
        {failures.length > 0 && (
          <p role="alert">Some steps could not be done yet: {failures.map((failure) => failure.step).join(', ')}.</p>
        )}
      </div>
    </section>
  );
}
