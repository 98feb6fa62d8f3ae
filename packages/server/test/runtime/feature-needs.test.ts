import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@robot-mcp-kit/core';
import { silentLogger } from '@robot-mcp-kit/core';
import { bootstrap } from '@robot-mcp-kit/server';
import {
  builtinFeatures,
  defineFeature,
  type Feature,
  type FeatureContext,
} from '@robot-mcp-kit/server/advanced';
import { ArmServer } from '../features/fixtures/arm.server.js';

function boot(features: readonly Feature[]) {
  return bootstrap(ArmServer, { env: {}, logger: silentLogger, features });
}

describe('a feature receives the app services it names, and only those', () => {
  it('setup gets exactly the services in needs (an optional one absent without a store)', async () => {
    const seen: object[] = [];
    const audit = defineFeature({
      name: 'audit',
      needs: ['taskManager', 'logger', 'stored'],
      setup(services) {
        seen.push(services);
        services.logger.debug('audit ready', { running: services.taskManager.runningCount });
        return {};
      },
    });
    const app = boot([...builtinFeatures(), audit]);
    try {
      expect(seen).toHaveLength(1);
      expect(Object.keys(seen[0]!).sort()).toEqual(['logger', 'taskManager']);
      expect((seen[0] as Partial<FeatureContext>).taskManager).toBe(app.taskManager);
    } finally {
      await app.close();
    }
  });

  it('a service the feature did not name is a type error and absent at run time', () => {
    let env: unknown = 'not read';
    const narrow = defineFeature({
      name: 'narrow',
      needs: ['logger'],
      setup(services) {
        // @ts-expect-error -- `env` is not in needs: the compiler refuses it
        env = services.env;
        return {};
      },
    });
    const app = boot([narrow]);
    expect(env).toBeUndefined();
    return app.close();
  });

  it('an unknown service name fails bootstrap naming the feature and the names there are', () => {
    const wrong = { name: 'wrong', needs: ['taskManagr'], setup: () => ({}) } as unknown as Feature;
    expect(() => boot([wrong])).toThrow(ConfigError);
    expect(() => boot([wrong])).toThrow(
      /features\[wrong\]\.needs: unknown app service "taskManagr"; a feature can name: definition, instance, env, taskManager,/,
    );
  });

  it('every built-in feature names its needs', () => {
    for (const feature of builtinFeatures()) {
      expect(feature.needs.length).toBeGreaterThan(0);
      expect(new Set(feature.needs).size).toBe(feature.needs.length);
    }
  });
});
