import './api/jitless.js';
import { setNonce } from 'get-nonce';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import './styles.css';

// The <style> elements Radix's dialogs add carry the nonce the page's policy allows (the api
// writes a fresh one into each index.html).
const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content;
if (nonce) setNonce(nonce);

createRoot(document.getElementById('root')!).render(<App />);
