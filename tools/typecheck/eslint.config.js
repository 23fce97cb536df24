// The linter's rules for the web client (ADR 0095): what the type checker
// does not see. A shadowed name once stopped the rate-limit countdown.
export default [
  {
    files: ['webclient/static/*.js'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      'no-shadow': ['error', { builtinGlobals: false, hoist: 'functions' }],
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
      'no-unreachable': 'error',
      'no-self-assign': 'error',
      'no-dupe-keys': 'error',
      'no-duplicate-case': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
];
