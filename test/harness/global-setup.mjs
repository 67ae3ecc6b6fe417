// Jest global setup. Jest loads this file outside its ESM transform, so it hands
// the TypeScript harness to tsx; see boot.ts for what starts.
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const { bootComponents } = await tsImport('./boot.ts', import.meta.url);
  await bootComponents();
}
