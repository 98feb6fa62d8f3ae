import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GeneratorError } from './generator.error.js';
import { type ProjectOptions } from './options.resolver.js';
import { KIT_PACKAGES, THIRD_PARTY_VERSIONS } from './versions.js';

/** Dependency specs of the kit packages: registry ranges, or `file:` tarballs with `--kit`. */
export interface KitSpecs {
  core: string;
  server: string;
  cli: string;
  ros: string;
  /** True when the specs point at local tarballs. */
  local: boolean;
}

/**
 * The kit packages at the generator's version (`^0.1.0`), or, with `--kit <dir>`, the tarballs
 * `npm pack` wrote there (`<dir>/robot-mcp-kit-core-0.1.0.tgz`, ...).
 * @throws GeneratorError naming the missing tarball and the command that makes it.
 */
export function kitSpecs(version: string, kitDir?: string, withRos = false): KitSpecs {
  if (kitDir === undefined) {
    const range = `^${version}`;
    return { core: range, server: range, cli: range, ros: range, local: false };
  }
  const spec = (key: keyof typeof KIT_PACKAGES): string => {
    const file = join(kitDir, `${KIT_PACKAGES[key].tarball}-${version}.tgz`);
    if (!existsSync(file)) {
      throw new GeneratorError(
        'GENERATOR_KIT_MISSING',
        '--kit',
        `${file} does not exist; pack the kit first, from the kit's repository: npm run build && ` +
          `mkdir -p ${kitDir} && npm pack --pack-destination ${kitDir} --workspace packages/core ` +
          '--workspace packages/server --workspace packages/cli --workspace packages/receiver ' +
          (key === 'ros' ? '--workspace packages/ros ' : '') +
          '(docs/generator.md, "Before publication")',
      );
    }
    return `file:${file}`;
  };
  // The ros tarball is needed (and looked for) only by a project of the ros template.
  const ros = withRos ? spec('ros') : '';
  return { core: spec('core'), server: spec('server'), cli: spec('cli'), ros, local: true };
}

/** The generated project's package.json. */
export function buildPackageJson(options: ProjectOptions, kit: KitSpecs): Record<string, unknown> {
  const pkg: Record<string, unknown> = {
    name: options.name,
    version: '0.1.0',
    private: true,
    description: options.description,
    type: 'module',
    main: 'dist/main.js',
    engines: { node: '>=20.19' },
    scripts: {
      build: 'tsc -p tsconfig.build.json',
      start: 'node dist/main.js',
      test: 'tsc -p tsconfig.json --noEmit && node --experimental-vm-modules node_modules/jest/bin/jest.js',
      // The CLI from node_modules/.bin only (`npm run kit -- add tool x`): an npm script never
      // asks the registry, unlike `npx robot-mcp-kit`, which would fetch any package of that name.
      kit: 'robot-mcp-kit',
      doctor: 'robot-mcp-kit doctor',
    },
    dependencies: sortKeys({
      [KIT_PACKAGES.core.name]: kit.core,
      [KIT_PACKAGES.server.name]: kit.server,
      ...(options.template === 'ros' ? { [KIT_PACKAGES.ros.name]: kit.ros } : {}),
      ...THIRD_PARTY_VERSIONS.dependencies,
    }),
    devDependencies: sortKeys({
      [KIT_PACKAGES.cli.name]: kit.cli,
      ...THIRD_PARTY_VERSIONS.devDependencies,
    }),
  };
  if (kit.local) {
    // The server and CLI tarballs depend on the kit by version; make npm use the local tarballs.
    pkg.overrides = {
      [KIT_PACKAGES.core.name]: `$${KIT_PACKAGES.core.name}`,
      [KIT_PACKAGES.server.name]: `$${KIT_PACKAGES.server.name}`,
    };
  }
  return pkg;
}

function sortKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
