import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  // The workspace root installs React 18 for the gateway's GraphiQL page; the app and Apollo Client
  // must share this package's React 19.
  resolve: { dedupe: ['react', 'react-dom'] },
  // localhost, not 127.0.0.1: the gateway's cookies belong to the site `localhost`, and only a page
  // on the same site sends them with `credentials: 'include'`.
  server: { host: 'localhost', port: 5173, strictPort: true },
  preview: { host: 'localhost', port: 4173, strictPort: true },
});
