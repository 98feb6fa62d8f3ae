// Installs the pre-commit hook (lint-staged: eslint --fix and prettier on staged files).
// Skipped outside a plain git checkout (CI, git worktrees, tarballs); never fails an install.
import { existsSync, mkdirSync, writeFileSync, chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';

const gitDir = join(process.cwd(), '.git');
if (process.env.CI || !existsSync(gitDir) || !statSync(gitDir).isDirectory()) process.exit(0);
try {
  const hooks = join(gitDir, 'hooks');
  mkdirSync(hooks, { recursive: true });
  const hook = join(hooks, 'pre-commit');
  writeFileSync(
    hook,
    '#!/bin/sh\n# installed by scripts/install-hooks.mjs\nexec npx --no-install lint-staged\n',
  );
  chmodSync(hook, 0o755);
} catch (error) {
  console.warn(`pre-commit hook not installed: ${error instanceof Error ? error.message : error}`);
}
