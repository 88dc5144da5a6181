// ESLint with typescript-eslint, the setup the VS Code extension generator writes, plus a check
// for import circles in src/ (see test/unit/architecture.test.ts).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ ignores: ['node_modules/**', 'out/**', 'dist/**', '.vscode-test/**', 'bench/results/**', '**/*.d.ts'] },
	{
		files: ['**/*.ts', '**/*.tsx'],
		extends: [js.configs.recommended, ...tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/naming-convention': ['warn', { selector: 'import', format: ['camelCase', 'PascalCase'] }],
			curly: ['warn', 'multi-line'],
			eqeqeq: 'warn',
			'no-throw-literal': 'warn',
			'@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }],
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},
	{
		files: ['**/*.mjs'],
		extends: [js.configs.recommended],
		languageOptions: {
			globals: {
				process: 'readonly',
				console: 'readonly',
				setTimeout: 'readonly',
				clearTimeout: 'readonly',
				URL: 'readonly',
				URLSearchParams: 'readonly',
				Buffer: 'readonly',
				setInterval: 'readonly',
				clearInterval: 'readonly',
				fetch: 'readonly',
				AbortController: 'readonly',
				performance: 'readonly',
				__dirname: 'readonly',
			},
		},
	},
);
