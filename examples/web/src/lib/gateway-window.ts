import { useApolloClient } from '@apollo/client/react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { SessionDocument, type SessionQuery } from '../__generated__/graphql';

type Session = SessionQuery['bankConnection'];
export type WindowState = 'idle' | 'waiting' | 'blocked' | 'closed';

const CHECK_EVERY_MS = 1_000;

/**
 * Runs one of the gateway's browser flows (sign-in, bank connection, step-up) in a window of its
 * own and resolves when the session shows it finished (`done`). The gateway returns such flows
 * only to a path on its own origin, so the app cannot be redirected back to; it asks the
 * gateway instead, once a second, and closes the window when the answer changes.
 */
export function useGatewayWindow(done: (session: Session) => boolean, onDone: () => void) {
  const client = useApolloClient();
  const [state, setState] = useState<WindowState>('idle');
  const popup = useRef<Window | null>(null);
  // The latest callbacks, so the timer below is not restarted by every render.
  const callbacks = useRef({ done, onDone });
  callbacks.current = { done, onDone };

  const open = useCallback((url: string) => {
    popup.current = window.open(url, 'gateway', 'popup,width=480,height=720');
    setState(popup.current ? 'waiting' : 'blocked');
  }, []);

  useEffect(() => {
    if (state !== 'waiting') return;
    const timer = setInterval(() => {
      client
        .query({ query: SessionDocument, fetchPolicy: 'network-only' })
        .then(({ data }) => {
          if (data && callbacks.current.done(data.bankConnection)) {
            popup.current?.close();
            setState('idle');
            callbacks.current.onDone();
          } else if (popup.current?.closed) setState('closed');
        })
        .catch(() => {
          // Signed out still (or for a moment unreachable): the flow is not finished yet.
          if (popup.current?.closed) setState('closed');
        });
    }, CHECK_EVERY_MS);
    return () => clearInterval(timer);
  }, [state, client]);

  return { state, open };
}
