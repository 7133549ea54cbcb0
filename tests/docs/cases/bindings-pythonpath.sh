# bindings/README.md, finding the installed package: <prefix> is the
# installed prefix; the library it loaded is the one in that prefix.
snippet bindings-pythonpath | sed "s|<prefix>|$SP_PREFIX|g" > commands.sh
sh -e commands.sh | tee out.txt
grep "^0\.1\.[0-9]* $SP_LIBDIR/libscope_profiler" out.txt
