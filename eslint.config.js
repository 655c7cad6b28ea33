// ESLint (flat config) with typescript-eslint's type-aware rules over src/, test/, bench/ and
// scripts/. Formatting is Prettier's job (.prettierrc.json): no stylistic rules here.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Build outputs and generated code are not ours to lint.
  {
    ignores: [
      'dist/',
      'web/dist/',
      'coverage/',
      'node_modules/',
      'src/client/schema.d.ts',
      'test/generators/*/client/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Fastify's API takes async functions: plugins are typed FastifyPluginAsync and hooks that
      // return a promise need no `done` callback, so `async` without `await` is its documented
      // form. Forgotten awaits are caught by no-floating-promises and no-misused-promises.
      '@typescript-eslint/require-await': 'off',
      // `_name` marks a binding left unused on purpose (destructuring a field away).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  // Tests read JSON response bodies as `any` (test/support: `JsonBody`) and pin their shape with
  // expect(), which fails at run time on a wrong guess; the no-unsafe-* family exists to keep
  // `any` from flowing into production code, and here would only ask for a cast per assertion.
  // Everything else, including no-explicit-any, stays on for tests.
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  // JavaScript config files are outside tsconfig.json: lint them without types.
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
);
