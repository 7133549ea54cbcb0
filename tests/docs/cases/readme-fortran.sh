# README.md, the Fortran snippet: 10 calls of "compute".
snippet readme-fortran > app.f90
fortran_build app.f90 app
./app
check_profile profiling_data.h5 --ranks 1 --region compute --count compute=10
