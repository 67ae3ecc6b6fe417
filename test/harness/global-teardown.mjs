// Jest global teardown: stops what global-setup.mjs started, pass or fail.
import { tsImport } from 'tsx/esm/api';

export default async function globalTeardown() {
  const { stopComponents } = await tsImport('./boot.ts', import.meta.url);
  await stopComponents();
}
