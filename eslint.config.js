import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'data', '.neo4j-data', 'bench/results', 'scripts/neo4j'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          // Node 20's V8 misses its inline cache for every property a literal names after a
          // leading spread: 1-2 us each, 30 us for a stored turn's 19 parameters, against
          // 0.1 us for the same literal with the spread last.
          selector:
            "ObjectExpression > SpreadElement:first-child:matches([argument.callee.name=/^(scope|filter)Params$/], [argument.name='params'], [argument.property.name=/^(params|scope)$/]) ~ Property",
          message: 'Spread scope parameters last: { id, ...params } (see eslint.config.js).',
        },
      ],
    },
  },
);
