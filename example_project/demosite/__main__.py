from demosite.server import main

main()
