node_modules/
dist/
coverage/
*.tsbuildinfo
*.tgz
.env
.DS_Store
