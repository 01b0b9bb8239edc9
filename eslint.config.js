import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // test/http/openapi-client imports types that only its test generates (test/http/openapi-client.test.ts).
  { ignores: ['dist/**', 'coverage/**', 'data/**', 'scratch/**', 'test/http/openapi-client/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js'] } },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  // Core is the pure domain: contract builds on it, never the other way (docs/architecture.md "Layers").
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/contract/*'],
              message: 'src/core imports nothing from src/contract: move what both need into src/core.',
            },
          ],
        },
      ],
    },
  },
  // The console (web/src, type-checked through web/tsconfig.json): the rules of hooks and of the React Compiler.
  { files: ['web/src/**/*.{ts,tsx}'], ...reactHooks.configs.flat.recommended },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
);
