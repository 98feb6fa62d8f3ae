{
  "extends": "./tsconfig.json",
  "compilerOptions": {
    "noEmit": false,
    "rootDir": "src",
    "outDir": "dist",
    "types": ["node"],
    "sourceMap": true
  },
  "include": ["src"]
}
