import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // sdk/src/gen is @hey-api/openapi-ts's output (`npm run sdk`): typechecked, not linted.
  { ignores: ['node_modules/', '.data/', 'coverage/', 'sdk/src/gen/', 'dashboard/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[object.name='process'][property.name='env']", message: 'read configuration through src/config only' },
      ],
    },
  },
  {
    files: ['test/**', 'bench/**', 'sdk/**', 'src/config/**', 'src/cli.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
