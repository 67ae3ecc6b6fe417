/** The dashboard's entry point: renders the app into the page's #app element. */
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app');
if (root) render(<App />, root);
