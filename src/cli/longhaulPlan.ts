// Placeholder entry so the build has its CLI target; replaced by the plan command (issue 3).
process.stderr.write('longhaul-plan: not implemented yet\n');
process.exit(1);
