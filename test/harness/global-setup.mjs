// Jest global setup. Jest loads this file outside its ESM transform, so it hands
// the TypeScript harness to tsx; see boot.ts for what starts, needs.ts for when
// nothing need start, and shared-builds.mjs for what the files share.
import { tsImport } from 'tsx/esm/api';
import { ensureSharedBuilds } from './shared-builds.mjs';

export default async function globalSetup(globalConfig, projectConfig) {
  await ensureSharedBuilds(projectConfig.rootDir);
  const { bootComponents, selectionUsesComponents } = await tsImport('./boot.ts', import.meta.url);
  if (await selectionUsesComponents(globalConfig, projectConfig)) await bootComponents();
  else
    process.stdout.write('\nharness: no selected file uses the shared components; none started\n');
}
