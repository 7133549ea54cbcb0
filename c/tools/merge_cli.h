/* merge_cli.h - crash recovery's command line, for the two programs that offer it. */
#ifndef SP_MERGE_CLI_H
#define SP_MERGE_CLI_H

/* Parses argv (argv[0] is skipped) and runs sp_spill_merge; returns the
 * exit status: 0 ok, 1 no readable spill file, 2 usage, 3 I/O. prog names
 * the command in messages. */
int sp_merge_main(int argc, char **argv, const char *prog);

#endif
