// Lint rules for the whole repository (ESLint flat config).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.tools/',
      '.dev/',
      'dist/',
      'dashboard/dist/',
      'coverage/',
      'examples/**/node_modules/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // The web dashboard runs in the browser.
    files: ['dashboard/src/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
