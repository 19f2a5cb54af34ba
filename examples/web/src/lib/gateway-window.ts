import { useCallback, useEffect, useRef, useState } from 'react';

export type WindowState = 'idle' | 'waiting' | 'blocked' | 'closed';

/** The page the gateway sends a finished flow back to (public/flow-done.html): it tells the app, then closes. */
const FLOW_DONE_PATH = '/flow-done.html';
const CHANNEL = 'gateway-flow';
const CHECK_CLOSED_EVERY_MS = 500;

/**
 * One of the gateway's links (sign-in, bank connection, reconnection, step-up) made to return to
 * the app's small flow-done page. The gateway sends a finished flow to `returnTo` when it is on an
 * origin it allows (ALLOWED_ORIGINS), so neither GraphiQL nor a second copy of the app opens.
 */
export function returningToApp(link: string): string {
  const url = new URL(link);
  url.searchParams.set('returnTo', `${window.location.origin}${FLOW_DONE_PATH}`);
  return url.href;
}

/**
 * Runs a gateway flow in a window of its own, the way sign-in does, and calls `onDone` when the
 * gateway sends that window back to the app. The window stays on the gateway's and the platform's
 * pages (the app never sees a password or a bank token), and the app keeps its state meanwhile.
 */
export function useGatewayWindow(onDone: () => void) {
  const [state, setState] = useState<WindowState>('idle');
  const popup = useRef<Window | null>(null);
  // The latest callback, so the listener below is not renewed by every render.
  const done = useRef(onDone);
  done.current = onDone;

  const open = useCallback((link: string) => {
    popup.current = window.open(returningToApp(link), 'gateway', 'popup,width=480,height=720');
    setState(popup.current ? 'waiting' : 'blocked');
  }, []);

  useEffect(() => {
    if (state !== 'waiting') return;
    const channel = new BroadcastChannel(CHANNEL);
    channel.onmessage = () => {
      popup.current?.close();
      setState('idle');
      done.current();
    };
    const closed = setInterval(() => {
      if (popup.current?.closed) setState((now) => (now === 'waiting' ? 'closed' : now));
    }, CHECK_CLOSED_EVERY_MS);
    return () => {
      channel.close();
      clearInterval(closed);
    };
  }, [state]);

  return { state, open };
}
