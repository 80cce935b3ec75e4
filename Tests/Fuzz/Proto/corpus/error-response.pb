
invalid_argument line1
line2 "quoted" \ é 日本streamId"req-0001